/** The part of a schema library's error that `describeFirstIssue` reads (zod's `ZodError` has this shape). */
export interface SchemaIssues {
  readonly issues: readonly { readonly code: string; readonly path: readonly PropertyKey[]; readonly message: string; readonly keys?: readonly string[] }[];
}

/** The dotted path and message of the first problem the schema found, prefixed with `root`. */
export function describeFirstIssue(error: SchemaIssues, root: string): { field: string; problem: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { field: root, problem: "is invalid" };
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") return { field: [root, ...path, issue.keys?.[0]].join("."), problem: "is not a known option" };
  return { field: [root, ...path].join("."), problem: issue.message };
}
