// Every piece of memory text reaches the page as a text node: memories are
// written by agents, and nothing they write may become markup.

export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "className") element.className = value;
    else if (name === "dataset") Object.assign(element.dataset, value);
    // Through CSSOM, which the page's Content-Security-Policy allows, unlike style attributes.
    else if (name === "style") Object.assign(element.style, value);
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function number(value, digits = 3) {
  return Number(value).toFixed(digits);
}

export function lower(value) {
  return value ? value.toLowerCase().replaceAll("_", " ") : "";
}

/**
 * At most `length` characters, cut after the last whole word that fits and
 * marked with an ellipsis, which so ends the last line however the text
 * wraps. A single word longer than that is cut in it.
 */
export function shorten(text, length) {
  if (text.length <= length) return text;
  const room = text.slice(0, length);
  const words = room.slice(0, room.search(/\s\S*$/)).trimEnd();
  return `${words || room.slice(0, length - 1)}…`;
}
