import { collapseSpaces } from './util/strings.js';

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]);
}

export function escapeText(text) {
  return escapeHtml(collapseSpaces(text));
}
