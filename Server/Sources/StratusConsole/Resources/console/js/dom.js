// Small DOM helpers: build elements, show notices, ask for confirmation.

/** Builds an element: h("button", {class: "quiet", onclick}, "Save"). Attributes starting with "on" become listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "style") for (const [property, setting] of Object.entries(value)) element.style.setProperty(property, setting);
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** Shows an error at the top of the page, readable, with the server's code. */
export function showError(error) {
  const notices = document.getElementById("notices");
  const code = error?.serverErrorCode;
  const text = error?.reason ?? error?.message ?? String(error);
  const close = h("button", { type: "button", class: "quiet", "aria-label": "Dismiss" }, "×");
  const notice = h("div", { class: "notice error", role: "alert" }, h("p", {}, code ? h("span", { class: "code" }, code) : null, text), close);
  close.addEventListener("click", () => notice.remove());
  notices.replaceChildren(notice);
  return notice;
}

/** Whether a notice just shown survives the page change that usually follows it. */
let keepThroughNextPage = false;

/** Shows a short confirmation that something worked. */
export function showInfo(text) {
  // The navigation that usually follows a notice leaves it shown, however late a busy browser handles it.
  keepThroughNextPage = true;
  const notices = document.getElementById("notices");
  const notice = h("div", { class: "notice info" }, h("p", {}, text));
  // It stays until the next page is shown: a busy browser may take seconds before anyone reads it.
  notices.replaceChildren(notice);
}

export function clearNotices() {
  if (keepThroughNextPage) {
    keepThroughNextPage = false;
    return;
  }
  document.getElementById("notices").replaceChildren();
}

/**
 * Calls `refresh` every `milliseconds`, one call at a time (on a slow server a refresh may take longer than the
 * interval), skipping turns while `skip()` holds and showing a failure; answers the function that stops it.
 */
export function refreshEvery(milliseconds, refresh, skip = () => false) {
  let refreshing = false;
  const timer = setInterval(() => {
    if (skip() || refreshing) return;
    refreshing = true;
    refresh().catch(showError).finally(() => { refreshing = false; });
  }, milliseconds);
  return () => clearInterval(timer);
}

/** Runs an action from a button, showing its error instead of losing it, and disabling the button meanwhile. */
export async function run(button, action) {
  if (button) button.disabled = true;
  try {
    return await action();
  } catch (error) {
    showError(error);
  } finally {
    if (button) button.disabled = false;
  }
}

/** Bytes in the largest unit that fits (1 KB = 1,024 bytes, as the server's settings count): 512 bytes, 1.5 MB. */
export function formatBytes(bytes) {
  if (bytes < 1024) return `${Math.round(bytes)} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${Math.round(value * 10) / 10} ${units[unit]}`;
}

/** Milliseconds since 1970 as a local date and time. */
export function formatTime(milliseconds) {
  if (milliseconds === undefined || milliseconds === null) return "";
  return new Date(milliseconds).toLocaleString();
}

/** A modal dialog with a title and content; resolves when closed. */
export function openDialog(title, content) {
  const dialog = h("dialog", { "aria-label": title },
    h("header", { class: "row" }, h("h2", {}, title), h("button", { type: "button", class: "quiet", onclick: () => dialog.close(), "aria-label": "Close" }, "×")),
    content);
  document.body.append(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  dialog.showModal();
  return dialog;
}
