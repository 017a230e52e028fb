import { describe, expect, it } from "vitest";
import { indentPasted } from "../../web/paste-indent.js";

describe("a multi-line paste", () => {
  it("lands under an indented line with its own relative indentation", () => {
    expect(indentPasted("a\n  b\nc", "    item", 8)).toBe("a\n      b\n    c");
  });

  it("loses the indentation all its lines share, the first line included", () => {
    expect(indentPasted("  a\n    b\n  c", "  ", 2)).toBe("a\n    b\n  c");
  });

  it("takes the target's indentation only up to the cursor", () => {
    expect(indentPasted("a\nb", "    item", 2)).toBe("a\n  b");
  });

  it("keeps the first line whole after text: the rest of a copied line, its blank included", () => {
    expect(indentPasted(" list\n  write\n    check", "  Tasks", 7)).toBe(" list\n  write\n    check");
  });

  it("leaves one line, and blank lines, as they are", () => {
    expect(indentPasted("  one line", "    item", 8)).toBe("  one line");
    expect(indentPasted("a\n\n   \nb", "  x", 3)).toBe("a\n\n\n  b");
  });
});
