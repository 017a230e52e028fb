/**
 * A UUID in its canonical 8-4-4-4-12 hex form, lower case: the form the service writes and
 * PostgreSQL prints. A source to build patterns from (`new RegExp`), so that every layer that
 * recognises a UUID (the validator, the page's routes, the stores, the commit notices) reads the
 * same shape; whether upper case is accepted too is each pattern's own choice (the `i` flag).
 */
export const UUID_SOURCE = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** A whole string that is a canonical UUID, in either case. */
export const UUID_PATTERN = new RegExp(`^${UUID_SOURCE}$`, "i");
