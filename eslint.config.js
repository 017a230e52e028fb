import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // test/openapi/generated: the client types scripts/openapi.ts makes from the OpenAPI document.
  { ignores: ["dist/**", "node_modules/**", "data/**", "coverage/**", "test/openapi/generated/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      // Async interface methods may be implemented synchronously (the SQLite store, route plugins).
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.property.name='only']", message: "focused tests hide the rest of the suite" },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ["**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: { module: "readonly", require: "readonly", process: "readonly", URL: "readonly", console: "readonly" } },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/unbound-method": "off",
    },
  },
);
