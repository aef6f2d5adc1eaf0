// Charts drawn as SVG by the console itself: bars (stacked by series) and lines over time, with axes, a legend
// and a title per bar or point that screen readers and hovering both read.

const svgNS = "http://www.w3.org/2000/svg";
const width = 640;
const height = 180;
const margin = { top: 10, right: 10, bottom: 22 };
/** Roughly how wide one character of an axis label is, in the chart's units (11px text). */
const characterWidth = 7;

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  for (const child of children) if (child) element.append(child);
  return element;
}

/** A round step for `count` ticks up to `maximum`: 1, 2 or 5 times a power of ten. */
function niceMaximum(maximum) {
  if (maximum <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(maximum));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= maximum) return factor * power;
  return 10 * power;
}

/**
 * The chart's frame: grid lines, the value axis and three time labels. The value axis is as wide as its longest
 * label ("12.5 MB" needs more room than "40"), so no label is cut off. Answers the root and the plot's box.
 */
function frame(label, maximum, formatY, times, formatX) {
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "chart" });
  const valueLabels = [0, 0.5, 1].map((fraction) => formatY(maximum * fraction));
  const left = Math.max(40, 12 + characterWidth * Math.max(...valueLabels.map((text) => String(text).length)));
  const plot = { left, top: margin.top, width: width - left - margin.right, height: height - margin.top - margin.bottom };
  [0, 0.5, 1].forEach((fraction, index) => {
    const y = plot.top + plot.height * (1 - fraction);
    root.append(svg("line", { x1: left, x2: width - margin.right, y1: y, y2: y, class: "grid" }));
    const text = svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "axis" });
    text.textContent = valueLabels[index];
    root.append(text);
  });
  if (times.length) {
    const labelled = [...new Set([0, Math.floor((times.length - 1) / 2), times.length - 1])];
    for (const index of labelled) {
      const x = left + ((index + 0.5) / times.length) * plot.width;
      // The first label reads from its point, the last up to it, so neither runs off the chart.
      const anchor = labelled.length > 1 && index === 0 ? "start" : labelled.length > 1 && index === times.length - 1 ? "end" : "middle";
      const text = svg("text", { x, y: height - 6, "text-anchor": anchor, class: "axis" });
      text.textContent = formatX(times[index]);
      root.append(text);
    }
  }
  return { root, plot };
}

/**
 * Bars over time, stacked by series: `points` are `{time, values: {seriesName: number}}`, `series` names each with
 * a CSS class (`{name, className}`); `legend` names the series under the chart (by default when there are several).
 */
export function barChart({ label, points, series, formatX, formatY = String, legend = series.length > 1 }) {
  const totals = points.map((point) => series.reduce((sum, one) => sum + (point.values[one.name] ?? 0), 0));
  const maximum = niceMaximum(Math.max(0, ...totals));
  const { root, plot } = frame(label, maximum, formatY, points.map((point) => point.time), formatX);
  const plotHeight = plot.height;
  const slot = plot.width / Math.max(1, points.length);
  points.forEach((point, index) => {
    let base = 0;
    const group = svg("g", { class: "bar" });
    const title = svg("title");
    title.textContent = `${formatX(point.time)}: ` + series.map((one) => `${one.name} ${formatY(point.values[one.name] ?? 0)}`).join(", ");
    group.append(title);
    for (const one of series) {
      const value = point.values[one.name] ?? 0;
      if (value <= 0) continue;
      const barHeight = (value / maximum) * plotHeight;
      group.append(svg("rect", {
        x: plot.left + index * slot + slot * 0.1, width: Math.max(1, slot * 0.8),
        y: plot.top + plotHeight - ((base + value) / maximum) * plotHeight, height: Math.max(0.5, barHeight), class: one.className,
      }));
      base += value;
    }
    root.append(group);
  });
  return chartFigure(root, series, legend);
}

/** Lines over time: `points` are `{time, values: {seriesName: number | undefined}}`; a gap where a value is missing. */
export function lineChart({ label, points, series, formatX, formatY = String, legend = series.length > 1 }) {
  const values = points.flatMap((point) => series.map((one) => point.values[one.name]).filter((value) => value !== undefined));
  const maximum = niceMaximum(Math.max(0, ...values));
  const { root, plot } = frame(label, maximum, formatY, points.map((point) => point.time), formatX);
  const plotHeight = plot.height;
  const slot = plot.width / Math.max(1, points.length);
  for (const one of series) {
    let path = "";
    let drawing = false;
    points.forEach((point, index) => {
      const value = point.values[one.name];
      if (value === undefined) { drawing = false; return; }
      const x = plot.left + (index + 0.5) * slot;
      const y = plot.top + plotHeight - (value / maximum) * plotHeight;
      path += `${drawing ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)} `;
      drawing = true;
      const dot = svg("circle", { cx: x, cy: y, r: 2.5, class: one.className });
      const title = svg("title");
      title.textContent = `${formatX(point.time)}: ${one.name} ${formatY(value)}`;
      dot.append(title);
      root.append(dot);
    });
    if (path) root.append(svg("path", { d: path.trim(), class: `line ${one.className}` }));
  }
  return chartFigure(root, series, legend);
}

function chartFigure(root, series, legend) {
  const figure = document.createElement("figure");
  figure.className = "chart-figure";
  figure.append(root);
  if (legend) {
    const caption = document.createElement("figcaption");
    caption.className = "legend";
    for (const one of series) {
      const item = document.createElement("span");
      const swatch = document.createElement("i");
      swatch.className = `swatch ${one.className}`;
      item.append(swatch, one.name);
      caption.append(item);
    }
    figure.append(caption);
  }
  return figure;
}
