// Formats and shouts, in the page.
export function label(name) {
  const text = `<${name}>`;
  return text;
}

export function shout(text) {
  const loud = text.toUpperCase();
  return loud + '!';
}
