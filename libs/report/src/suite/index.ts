export * from './schema.ts';
export * from './matrix.ts';
export { renderSuiteJson } from './json.ts';
export { renderSuiteMarkdown, MARKDOWN_WIDTH } from './markdown.ts';
export { renderSuiteJUnit } from './junit.ts';
export { renderSuiteHtml } from './html.ts';
export { readSuiteReport } from './io.ts';
