/** How many names one SCAN call looks at: a page the server walks in well under a millisecond. */
const SCAN_PAGE = 1000;

/** One SCAN call on one server: `SCAN cursor MATCH pattern COUNT count`, answering the next cursor and the names found. */
export type ScanPage = (cursor: string, pattern: string, count: number) => Promise<[string, string[]]>;

/**
 * Every name on one server that matches `pattern`, walked with SCAN until the cursor comes back to 0. SCAN may
 * repeat a name (the answer holds each once); a name that exists for the whole walk is always returned.
 */
export async function scanNames(page: ScanPage, pattern: string): Promise<Set<string>> {
  const names = new Set<string>();
  let cursor = "0";
  do {
    const [next, batch] = await page(cursor, pattern, SCAN_PAGE);
    for (const name of batch) names.add(name);
    cursor = next;
  } while (cursor !== "0");
  return names;
}
