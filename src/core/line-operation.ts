import { Type, type Static } from "@sinclair/typebox";

/** Largest value of an `int32` field of the interface. */
export const INT32_MAX = 2_147_483_647;

/**
 * One line operation of a content patch, relative to the base version (0-based line index).
 * The one source of this shape: it validates requests, types the code and documents the API.
 */
export const LineOperationSchema = Type.Object(
  {
    op: Type.Union([Type.Literal("replace"), Type.Literal("insert"), Type.Literal("delete")], {
      description: "replace, insert or delete",
    }),
    index: Type.Integer({ minimum: 0, maximum: INT32_MAX, format: "int32", description: "0-based line index in the base version" }),
    count: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: INT32_MAX,
        format: "int32",
        description: "number of affected base lines; required for replace and delete, ignored for insert",
      }),
    ),
    lines: Type.Optional(
      Type.Array(Type.String(), { description: "lines to put in; required for insert and replace, ignored for delete; no line contains \\n or \\r" }),
    ),
  },
  {
    title: "LineOperation",
    description: "insert puts `lines` before base line `index`; replace takes base lines [index, index+count) out and puts `lines` there; delete takes them out",
  },
);

export type LineOperation = Static<typeof LineOperationSchema>;
