// The row protocol between a benchmark script and `npm run bench`: each script prints its own
// readable table, and one `BENCH:{json}` line per measured comparison, which the aggregator collects.
/**
 * @param {{ row: string, measured: number, baseline: number | null, unit: string,
 *           ratio?: number | null, target: string, met: boolean | null, note?: string }} row
 *   measured and baseline are taken side by side in the same run; ratio defaults to measured/baseline.
 */
export function emitRow(row) {
  const ratio = row.ratio !== undefined ? row.ratio : row.baseline ? row.measured / row.baseline : null;
  process.stdout.write(`BENCH:${JSON.stringify({ ...row, ratio })}\n`);
}
