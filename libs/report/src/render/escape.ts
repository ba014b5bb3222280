// Escaping for every rendering. Report text is not ours: tool names, hosts, details and warnings come
// from the agent or its environment, so each view escapes all of it, and characters XML 1.0 forbids
// (control bytes an agent can print) are replaced rather than producing a file no parser accepts.

/** C0 controls other than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF are not XML characters. */
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlSafeChars(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD');
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes for element text and attribute values alike (quotes included), in XML and HTML. */
export function escapeXml(text: string): string {
  return xmlSafeChars(text).replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

/** HTML uses the same five escapes; &apos; is valid in HTML5 too, but &#39; reads everywhere. */
export function escapeHtml(text: string): string {
  return escapeXml(text).replace(/&apos;/g, '&#39;');
}

/**
 * Inline Markdown text: backslash-escapes the ASCII punctuation CommonMark and GitHub give meaning
 * (emphasis, links, raw HTML and entities, tables, math, strikethrough, a list or heading at the
 * start), so agent text renders as the text itself. Parentheses mean nothing once [ ] are escaped.
 * Line breaks become spaces: a table cell or list item is one line.
 */
export function escapeMarkdown(text: string): string {
  const flat = xmlSafeChars(text).replace(/\r?\n|\r/g, ' ');
  return flat
    .replace(/[\\`*_[\]<>#|&~$]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+]|\d+[.)])/, (_, space: string, lead: string) => `${space}${lead.replace(/([-+.)])$/, '\\$1')}`);
}
