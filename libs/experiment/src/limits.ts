// The bounds an experiment must stay within, in one place. Input limits keep validation's time and
// memory in proportion to a real experiment whatever the file holds; value bounds catch a slipped
// digit before it costs money or skews a score. A real experiment is a few kilobytes, nested five or
// six levels, with a handful of placeholders and aliases, a cost ceiling of a few dollars and
// weights of 1 to 5: every bound is far above that.

/** The largest experiment file read, in bytes (1 MiB); a larger one is refused before it is read. */
export const MAX_EXPERIMENT_BYTES = 1024 * 1024;
/**
 * YAML tokens (keys, values, indicators, spaces, line breaks, comments) per file, counted before the
 * file is parsed: the YAML parser's time grows with them, and a real experiment has a few hundred.
 */
export const MAX_YAML_TOKENS = 20_000;
/** How deeply collections (mappings and lists) may nest, aliases followed. */
export const MAX_NESTING = 64;
/** Aliases (`*name`) per file. */
export const MAX_ALIASES = 100;
/** `${NAME}` placeholders per file. */
export const MAX_PLACEHOLDERS = 100;
/** Errors, and separately warnings, listed per file; the rest are counted in one last line. */
export const MAX_DIAGNOSTICS = 100;

/** The largest cost ceiling (abort cost_usd_above), in USD per repetition. */
export const MAX_COST_USD = 10_000;
/** The longest wall-clock abort (abort wall_clock_s_above), in seconds: one day. */
export const MAX_WALL_CLOCK_S = 86_400;
/** The largest probe weight; the score is a weighted mean, so only the ratios of weights matter. */
export const MAX_PROBE_WEIGHT = 100;

/** `1 MiB` and the like, for messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${+(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
