/* toolsel's charts, drawn by Chart.js (vendored in assets/vendor: nothing is fetched).
   barChart: one row per label, one bar per series; lineChart: values over time.
   Colours come from the page's CSS variables, so light and dark themes both apply. */
"use strict";

const DRAWN = [];  // [{chart, series}] to recolour when the colour scheme changes

function themeColour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue("--" + name).trim() || "#888";
}

function seriesColour(cls) {
  return themeColour(cls === "bad" ? "bad" : cls === "bar" ? "bar" : "bar2");
}

function baseOptions(format, indexAxis) {
  const muted = themeColour("muted"), line = themeColour("line");
  const valueAxis = {
    beginAtZero: true, grid: {color: line}, border: {color: line},
    ticks: {color: muted, maxTicksLimit: 5, callback: value => format(value)},
  };
  const labelAxis = {grid: {display: false}, border: {color: line}, ticks: indexAxis === "y"
    ? {color: themeColour("fg"), autoSkip: false}
    : {color: muted, autoSkip: true, maxRotation: 0, maxTicksLimit: 6}};
  return {
    animation: false, responsive: true, maintainAspectRatio: false, indexAxis,
    scales: indexAxis === "y" ? {x: valueAxis, y: labelAxis} : {x: labelAxis, y: valueAxis},
    plugins: {
      legend: {display: false},
      tooltip: {callbacks: {label: item => `${item.dataset.label}: ${format(item.raw)}`}},
    },
  };
}

function recolour() {
  for (let i = DRAWN.length - 1; i >= 0; i--) {
    const {chart, series, format, indexAxis} = DRAWN[i];
    if (!chart.canvas.isConnected) { chart.destroy(); DRAWN.splice(i, 1); continue; }
    chart.data.datasets.forEach((set, j) => {
      set.backgroundColor = set.borderColor = seriesColour(series[j].cls);
    });
    chart.options = baseOptions(format, indexAxis);
    chart.update();
  }
}
if (window.matchMedia) {
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", recolour);
}

function chartBox(title, key, series) {
  const box = el("figure", {class: "chart", "data-chart": key});
  box.append(el("h3", null, title));
  if (series && series.length > 1) {
    box.append(el("div", {class: "legend"},
      series.map(s => el("span", null, el("span", {class: "swatch " + (s.cls || "bar2")}), s.name))));
  }
  return box;
}

function draw(box, height, config, series, format) {
  const holder = el("div", {class: "plot"});
  holder.style.height = height + "px";
  const canvas = el("canvas", {role: "img", "aria-label": box.querySelector("h3").textContent});
  holder.append(canvas);
  box.append(holder);
  const chart = new Chart(canvas, config);
  DRAWN.push({chart, series, format, indexAxis: config.options.indexAxis});
  return box;
}

/** rows: [{label, values: [number|null...]}]; series: [{name, cls}]; format: value -> text. */
function barChart(title, rows, series, format, key) {
  const box = chartBox(title, key, series);
  if (!rows.length) {
    box.append(el("p", {class: "muted"}, "nothing to draw"));
    return box;
  }
  const config = {
    type: "bar",
    data: {
      labels: rows.map(r => r.label),
      datasets: series.map((s, j) => ({
        label: s.name, data: rows.map(r => r.values[j] ?? null),
        backgroundColor: seriesColour(s.cls), borderRadius: 2, maxBarThickness: 14,
      })),
    },
    options: baseOptions(format, "y"),
  };
  return draw(box, 24 + rows.length * (8 + 12 * series.length), config, series, format);
}

/** points: [{t: Date, values: [number|null...]}]; series: [{name, cls}]. */
function lineChart(title, points, series, format, key) {
  const box = chartBox(title, key, series);
  const values = points.flatMap(p => p.values.filter(v => v !== null && v !== undefined));
  if (!points.length || !values.length) {
    box.append(el("p", {class: "muted"}, "nothing recorded in this window"));
    return box;
  }
  const options = baseOptions(format, "x");
  options.plugins.tooltip.callbacks.title = items => points[items[0].dataIndex].t.toISOString();
  const config = {
    type: "line",
    data: {
      labels: points.map(p => timeLabel(p.t, points)),
      datasets: series.map((s, j) => ({
        label: s.name, data: points.map(p => p.values[j] ?? null),
        borderColor: seriesColour(s.cls), backgroundColor: seriesColour(s.cls),
        borderWidth: 2, pointRadius: 2.5, spanGaps: true,
      })),
    },
    options,
  };
  return draw(box, 180, config, series, format);
}

function timeLabel(t, points) {
  const span = points.length > 1 ? points[points.length - 1].t - points[0].t : 0;
  const iso = t.toISOString();
  if (span > 300 * 86400e3) return iso.slice(0, 10);
  return span > 2 * 86400e3 ? iso.slice(5, 10) : span > 2 * 3600e3 ? iso.slice(5, 16).replace("T", " ") : iso.slice(11, 19);
}
