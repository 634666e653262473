/* toolsel's charts: plain SVG drawn with DOM calls (no library, nothing fetched).
   barChart: one row per label, one bar per series; lineChart: values over time. */
"use strict";

const CHART_WIDTH = 600;

function shorten(text, max) {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** rows: [{label, values: [number|null...]}]; series: [{name, cls}]; format: value -> text. */
function barChart(title, rows, series, format, key) {
  const box = el("figure", {class: "chart", "data-chart": key});
  box.append(el("h3", null, title));
  if (!rows.length) {
    box.append(el("p", {class: "muted"}, "nothing to draw"));
    return box;
  }
  const labelWidth = 170, valueWidth = 70, rowHeight = 8 + 12 * series.length;
  const plotWidth = CHART_WIDTH - labelWidth - valueWidth;
  const max = Math.max(1e-9, ...rows.flatMap(r => r.values.filter(v => v !== null)));
  const height = rows.length * rowHeight + 4;
  const chart = svg("svg", {viewBox: `0 0 ${CHART_WIDTH} ${height}`, role: "img", "aria-label": title});
  rows.forEach((row, i) => {
    const top = i * rowHeight + 2;
    const label = svg("text", {x: labelWidth - 6, y: top + rowHeight / 2 + 4, "text-anchor": "end", class: "label"},
      shorten(row.label, 26));
    label.append(svg("title", null, row.label));
    chart.append(label);
    row.values.forEach((value, j) => {
      if (value === null || value === undefined) return;
      const y = top + 4 + j * 12;
      const width = Math.max(value > 0 ? 1 : 0, (value / max) * plotWidth);
      const bar = svg("rect", {x: labelWidth, y, width: width.toFixed(1), height: 10, rx: 2, class: series[j].cls});
      bar.append(svg("title", null, `${row.label} ${series[j].name}: ${format(value)}`));
      chart.append(bar);
      chart.append(svg("text", {x: labelWidth + width + 4, y: y + 9, "data-value": value}, format(value)));
    });
  });
  chart.append(svg("line", {x1: labelWidth, x2: labelWidth, y1: 0, y2: height, class: "axis"}));
  box.append(chart);
  if (series.length > 1) {
    box.append(el("div", {class: "legend"},
      series.map(s => el("span", null, el("span", {class: "swatch " + s.cls}), s.name))));
  }
  return box;
}

/** points: [{t: Date, values: [number|null...]}]; series: [{name, cls}]. */
function lineChart(title, points, series, format, key) {
  const box = el("figure", {class: "chart", "data-chart": key});
  box.append(el("h3", null, title));
  const values = points.flatMap(p => p.values.filter(v => v !== null && v !== undefined));
  if (!points.length || !values.length) {
    box.append(el("p", {class: "muted"}, "nothing recorded in this window"));
    return box;
  }
  const left = 56, right = 12, top = 10, bottom = 24, height = 180;
  const plotWidth = CHART_WIDTH - left - right, plotHeight = height - top - bottom;
  const max = Math.max(1e-9, ...values);
  const x = i => left + (points.length === 1 ? plotWidth / 2 : (i / (points.length - 1)) * plotWidth);
  const y = v => top + plotHeight - (v / max) * plotHeight;
  const chart = svg("svg", {viewBox: `0 0 ${CHART_WIDTH} ${height}`, role: "img", "aria-label": title});
  for (const fraction of [0, 0.5, 1]) {
    const value = max * fraction;
    chart.append(svg("line", {x1: left, x2: CHART_WIDTH - right, y1: y(value), y2: y(value), class: "axis"}));
    chart.append(svg("text", {x: left - 6, y: y(value) + 4, "text-anchor": "end"}, format(value)));
  }
  const ticks = Math.min(points.length, 6);
  for (let k = 0; k < ticks; k++) {
    const i = ticks === 1 ? 0 : Math.round((k / (ticks - 1)) * (points.length - 1));
    chart.append(svg("text", {x: x(i), y: height - 6, "text-anchor": "middle"}, timeLabel(points[i].t, points)));
  }
  series.forEach((s, j) => {
    let path = "";
    points.forEach((p, i) => {
      const v = p.values[j];
      if (v === null || v === undefined) return;
      path += (path ? " L" : "M") + x(i).toFixed(1) + " " + y(v).toFixed(1);
      const dot = svg("circle", {cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5, class: "dot"});
      dot.append(svg("title", null, `${p.t.toISOString()} ${s.name}: ${format(v)}`));
      chart.append(dot);
    });
    if (path) chart.append(svg("path", {d: path, class: "line " + s.cls}));
  });
  box.append(chart);
  box.append(el("div", {class: "legend"},
    series.map(s => el("span", null, el("span", {class: "swatch " + (s.cls === "bad" ? "bad" : "bar2")}), s.name))));
  return box;
}

function timeLabel(t, points) {
  const span = points.length > 1 ? points[points.length - 1].t - points[0].t : 0;
  const iso = t.toISOString();
  return span > 2 * 86400e3 ? iso.slice(5, 10) : iso.slice(11, 16);
}
