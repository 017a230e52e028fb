/** The kinds of change a version records: the one list (the store's type, the wire schema and the PostgreSQL CHECK derive from it). */
export const CHANGE_TYPES = ["CREATED", "UPDATED", "RENAMED", "DELETED", "RESTORED", "ROLLED_BACK"] as const;

export type ChangeType = (typeof CHANGE_TYPES)[number];
