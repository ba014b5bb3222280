// Renderings of a report: JUnit XML and a Markdown summary for CI, a self-contained HTML page with a
// timeline per repetition, and the writer that reads the artifacts and writes them atomically.
export { escapeHtml, escapeMarkdown, escapeXml } from './escape.ts';
export { renderJUnit } from './junit.ts';
export { renderMarkdownSummary } from './markdown.ts';
export { renderHtml } from './html.ts';
export { offsetText, repetitionKey, timelineOf, type EventsByRepetition, type RepetitionEvents, type TimelineEntry } from './timeline.ts';
export {
  MAX_ROUTINE_EVENTS,
  readRepetitionEvents,
  readTimelines,
  writeRenderings,
  writeTextAtomic,
  type RenderingTargets,
  type WrittenRendering,
} from './write.ts';
