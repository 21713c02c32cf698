import { collapseSpaces, isBlank, trimLines } from './util/strings.js';

const INLINE = /(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)/g;

export function parseInline(text) {
  const nodes = [];
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    if (part.startsWith('**')) nodes.push({ type: 'strong', text: part.slice(2, -2) });
    else if (part.startsWith('`')) nodes.push({ type: 'code', text: part.slice(1, -1) });
    else if (part.startsWith('*')) nodes.push({ type: 'em', text: part.slice(1, -1) });
    else nodes.push({ type: 'text', text: part });
  }
  return nodes;
}

function parseHeading(line) {
  const level = line.match(/^#+/)[0].length;
  return { type: 'heading', level, children: parseInline(collapseSpaces(line.slice(level))) };
}

function flushParagraph(lines, blocks) {
  if (lines.length) {
    blocks.push({ type: 'paragraph', children: parseInline(collapseSpaces(lines.join(' '))) });
  }
  lines.length = 0;
}

export function parse(source) {
  const blocks = [];
  const paragraph = [];
  for (const line of trimLines(source)) {
    if (isBlank(line)) {
      flushParagraph(paragraph, blocks);
    } else if (line.startsWith('#')) {
      flushParagraph(paragraph, blocks);
      blocks.push(parseHeading(line));
    } else {
      paragraph.push(line);
    }
  }
  flushParagraph(paragraph, blocks);
  return blocks;
}
