// The Markdown summary for a CI step page (GitHub's $GITHUB_STEP_SUMMARY, GitLab and Buildkite
// annotations): the verdict and why, the score with its 95% interval, the probe table, the faulted
// repetitions at a glance, and the warnings. GitHub-flavoured tables; all report text is escaped, and
// none of it goes in a code span (where a backslash escape would show).
import type { Report } from '../schema.ts';
import { escapeMarkdown as md } from './escape.ts';
import { faultedRepetitions, intervalText, passHatKText, passRateText, probeLabel, probeResult, scoreText, thresholdText, totalCost, usd } from './format.ts';

const VERDICT_MARK: Record<Report['verdict'], string> = { scored: '✅', aborted: '🛑', invalid: '⚠️' };

function table(head: string[], rows: string[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

const mark = (result: boolean | null): string => (result === true ? '✅' : result === false ? '❌' : '➖');

export function renderMarkdownSummary(report: Report): string {
  const lines: string[] = [];
  lines.push(`## ${VERDICT_MARK[report.verdict]} intutic chaos: ${md(report.experiment.name)} — ${report.verdict}`);
  lines.push('');
  if (report.experiment.description) lines.push(`> ${md(report.experiment.description)}`, '');
  lines.push(
    `**Score: ${scoreText(report)}** (95% interval ${intervalText(report.score_interval, 'score')}) · verdict **${report.verdict}** (exit ${report.exit_code}): ${md(report.verdict_reason)}`,
  );
  lines.push('');

  const withThreshold = report.probes.some((p) => thresholdText(p) !== '');
  const head = ['Probe', 'Weight', 'Pass rate', '95% interval', 'Passed', 'Not evaluated', 'pass^k', ...(withThreshold ? ['min_pass_rate'] : [])];
  const rows = report.probes.map((p) => [
    `\`${probeLabel(p)}\`${p.in_score ? '' : ' (not in score)'}`,
    String(p.weight),
    passRateText(p),
    intervalText(p.wilson95, 'percent'),
    `${p.passed}/${p.evaluated}`,
    String(p.not_evaluated),
    passHatKText(p),
    ...(withThreshold ? [thresholdText(p) || '—'] : []),
  ]);
  lines.push(...table(head, rows), '');

  const faulted = faultedRepetitions(report);
  if (faulted.length > 0) {
    const repRows = faulted.map((r) => [
      String(r.index),
      md(r.run_id),
      report.probes.map((p) => `${mark(probeResult(r, p.id))} ${md(p.id)}`).join('<br>'),
      usd(r.cost_usd) + (r.cost_multiplier === null ? '' : ` (${r.cost_multiplier.toFixed(2)}×)`),
      `${r.duration_s.toFixed(1)} s`,
      r.abort ? `abort: ${md(r.abort.condition)}` : r.error ? `error: ${md(r.error)}` : '',
    ]);
    lines.push('<details><summary>Faulted repetitions</summary>', '');
    lines.push(...table(['Rep', 'Run id', 'Probes', 'Cost', 'Duration', 'Stopped by'], repRows), '');
    lines.push('</details>', '');
  }
  for (const s of report.skipped) lines.push(`- ${s.kind} repetition ${s.index} did not run: ${md(s.reason)}`);
  if (report.skipped.length > 0) lines.push('');

  if (report.warnings.length > 0) {
    lines.push(`### ⚠️ Warnings (${report.warnings.length})`, '');
    for (const w of report.warnings) lines.push(`- ${md(w)}`);
    lines.push('');
  }
  const ran = report.repetitions.length;
  lines.push(
    `${ran} of ${report.experiment.repeat * 2} repetitions ran · model cost ${usd(totalCost(report))} · commit ${md(report.run.commit.slice(0, 12))} · image ${md(report.run.sandbox_image)} · run ${md(report.run.id)}`,
  );
  lines.push('', `Report: ${md(report.report_path)}`, '');
  return lines.join('\n');
}
