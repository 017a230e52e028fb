import { Type, type IntegerOptions, type StringOptions } from "@sinclair/typebox";
import { INT32_MAX } from "../core/line-operation.js";

export { INT32_MAX };

/**
 * Largest value of an `int64` field: the interface says int64, but both stores must hold it and a
 * JavaScript number must carry it exactly (PostgreSQL `bigint` and SQLite integers go further, a
 * double does not), so every int64 of the API is held to 2^53 − 1. A larger value is a 400, never
 * a rounded id or a 500 from the database.
 */
export const INT64_MAX = Number.MAX_SAFE_INTEGER;

/** An `int64` field of the API: 0 … 2^53 − 1 unless `minimum` says otherwise. */
export const Int64 = (options: IntegerOptions = {}) => Type.Integer({ format: "int64", minimum: 0, maximum: INT64_MAX, ...options });

/** An `int32` field of the API: 0 … 2^31 − 1 unless `minimum` says otherwise. */
export const Int32 = (options: IntegerOptions = {}) => Type.Integer({ format: "int32", minimum: 0, maximum: INT32_MAX, ...options });

/**
 * A UUID is only its canonical 8-4-4-4-12 hex form, in either case (`UUID_PATTERN` in
 * src/core/uuid.ts). The `uuid` format of ajv-formats also takes a `urn:uuid:` prefix, which no
 * store can use as a key: the service's validator replaces that format with this pattern
 * (src/http/validator.ts), so a schema says `format: "uuid"` and means exactly this.
 */
export const Uuid = (options: StringOptions = {}) => Type.String({ format: "uuid", ...options });
