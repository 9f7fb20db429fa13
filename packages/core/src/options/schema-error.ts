import type { z } from "zod";

/** The dotted path and message of the first problem zod found, prefixed with `root`. */
export function describeFirstIssue(error: z.ZodError, root: string): { field: string; problem: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { field: root, problem: "is invalid" };
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") return { field: [root, ...path, issue.keys[0]].join("."), problem: "is not a known option" };
  return { field: [root, ...path].join("."), problem: issue.message };
}
