/** Whether the `CI` variable is set: then a suite whose tool or server is missing fails instead of skipping. */
export const CI_IS_SET = !["", "0", "false"].includes((process.env.CI ?? "").toLowerCase());
