export function trimLines(text) {
  return text.split('\n').map((line) => line.trimEnd());
}

export function isBlank(line) {
  return line.trim() === '';
}

export function collapseSpaces(text) {
  return text.replace(/\s+/g, ' ').trim();
}

export function slugify(text) {
  return collapseSpaces(text).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
