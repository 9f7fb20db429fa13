/** A metric value as the tables print it: integers grouped, small values with 2 digits. */
export function formatNumber(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return "–";
  if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(Math.abs(value) >= 10 ? 1 : 2);
}
