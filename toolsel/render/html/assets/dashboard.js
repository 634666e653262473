/* The read-only dashboard `toolsel serve` answers at `/`: it reads /readyz and
   /v1/analytics (the same documents any client gets, behind the same token) and draws
   the `stats --format html` charts. The token, when the server wants one, is asked for
   here and kept in this tab's sessionStorage only. */
"use strict";

const WINDOWS = {
  "24h": {label: "last 24 hours", span: 24 * 3600e3, buckets: 24},
  "7d": {label: "last 7 days", span: 7 * 24 * 3600e3, buckets: 14},
  "30d": {label: "last 30 days", span: 30 * 24 * 3600e3, buckets: 30},
};
const TOKEN_KEY = "toolsel-token";
const REFRESH_MS = 60e3;

class Unauthorized extends Error {}

async function getJson(path) {
  const headers = {"Accept": "application/json"};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers["Authorization"] = "Bearer " + token;
  const response = await fetch(path, {headers, credentials: "omit", cache: "no-store"});
  if (response.status === 401) throw new Unauthorized("the server wants a bearer token");
  const body = await response.json().catch(() => ({}));
  return {status: response.status, body};
}

function isoHour(ms) {
  const d = new Date(ms);
  d.setUTCMinutes(0, 0, 0);
  return d;
}

async function loadAnalytics(windowKey) {
  const chosen = WINDOWS[windowKey];
  const until = isoHour(Date.now() + 3600e3);
  const since = new Date(until.getTime() - chosen.span);
  const step = chosen.span / chosen.buckets;
  const query = (a, b) => `/v1/analytics?since=${encodeURIComponent(a.toISOString())}&until=${encodeURIComponent(b.toISOString())}`;
  const whole = getJson(query(since, until));
  const parts = [];
  for (let i = 0; i < chosen.buckets; i++) {
    const a = new Date(since.getTime() + i * step), b = new Date(since.getTime() + (i + 1) * step);
    parts.push(getJson(query(a, b)).then(r => ({t: a.toISOString(), response: r})));
  }
  return {whole: await whole, parts: await Promise.all(parts)};
}

function statusBox(ready) {
  const body = ready.body || {};
  const ok = ready.status === 200 && body.ready;
  const lines = [
    el("strong", null, ok ? "ready" : "not ready"),
    ` · registry ${body.registry_version ?? "?"} · ${count(body.tools)} tools`,
  ];
  if (body.last_reload) lines.push(` · last reload ${body.last_reload}`);
  const box = el("div", {class: "status" + (ok && !body.last_reload_error ? "" : " bad"), id: "readiness"}, lines);
  if (body.last_reload_error) box.append(el("div", {class: "wrap", id: "reload-error"}, "last reload failed: " + body.last_reload_error));
  if (body.store_error) box.append(el("div", {class: "wrap"}, "usage store: " + body.store_error));
  return box;
}

function loginForm(app, retry) {
  const input = el("input", {type: "password", id: "token", autocomplete: "off"});
  const button = el("button", {type: "submit"}, "show the dashboard");
  const form = el("form", {class: "login", id: "login"},
    el("label", null, "bearer token (kept in this tab only)", input), button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value);
    retry();
  });
  app.replaceChildren(el("h1", null, "toolsel serve"),
    el("p", {class: "sub"}, "This server asks for its bearer token (the one it was started with)."), form);
  input.focus();
}

async function dashboard() {
  const app = document.getElementById("app");
  let windowKey = "7d";
  let timer = null;
  const draw = async () => {
    clearTimeout(timer);
    try {
      const ready = await getJson("/readyz");  // first alone: a 401 asks for the token once
      const analytics = await loadAnalytics(windowKey);
      const select = optionList(el("select", {id: "window"}), Object.entries(WINDOWS).map(([k, w]) => [k, w.label]));
      select.value = windowKey;
      select.addEventListener("change", () => { windowKey = select.value; draw(); });
      const content = el("div", {id: "content"});
      app.replaceChildren(el("h1", null, "toolsel serve"), statusBox(ready),
        el("div", {class: "filters"}, el("label", null, "window", select),
          el("span", {class: "muted"}, `updated ${new Date().toISOString().slice(0, 19).replace("T", " ")} UTC`)), content);
      if (analytics.whole.status !== 200) {
        content.append(el("div", {class: "status bad", id: "analytics-error"}, "analytics: " + (analytics.whole.body.error || analytics.whole.status)));
      } else {
        drawStats(content, analytics.whole.body, analytics.parts.filter(p => p.response.status === 200)
          .map(p => ({t: p.t, stats: p.response.body})));
      }
      document.body.setAttribute("data-ready", "1");
      timer = setTimeout(draw, REFRESH_MS);
    } catch (error) {
      if (error instanceof Unauthorized) {
        sessionStorage.removeItem(TOKEN_KEY);
        loginForm(app, draw);
        document.body.setAttribute("data-ready", "login");
      } else {
        app.replaceChildren(el("h1", null, "toolsel serve"), el("div", {class: "status bad"}, "cannot reach the server: " + error.message));
        timer = setTimeout(draw, REFRESH_MS);
      }
    }
  };
  draw();
}

dashboard();
