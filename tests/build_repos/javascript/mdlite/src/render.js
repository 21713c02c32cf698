import { escapeHtml, escapeText } from './escape.js';
import { parse } from './parser.js';
import { slugify } from './util/strings.js';

const TAGS = { strong: 'strong', em: 'em', code: 'code' };

function renderInline(nodes) {
  return nodes.map((node) => {
    const text = escapeHtml(node.text);
    return node.type in TAGS ? `<${TAGS[node.type]}>${text}</${TAGS[node.type]}>` : text;
  }).join('');
}

export function renderBlock(block) {
  const inner = renderInline(block.children);
  if (block.type === 'heading') {
    const id = slugify(block.children.map((node) => node.text).join(' '));
    return `<h${block.level} id="${id}">${inner}</h${block.level}>`;
  }
  return `<p>${inner}</p>`;
}

export function render(source, title = '') {
  const body = parse(source).map((block) => renderBlock(block));
  if (title) body.unshift(`<title>${escapeText(title)}</title>`);
  return body.join('\n');
}
