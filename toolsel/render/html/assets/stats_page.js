/* `toolsel stats --format html`: the dashboard's charts, drawn from the embedded document. */
"use strict";

(function () {
  const data = readData();
  const app = document.getElementById("app");
  app.append(el("h1", null, "toolsel stats"));
  app.append(el("p", {class: "sub"}, data.source));
  drawStats(app, data.stats, data.series);
  document.body.setAttribute("data-ready", "1");
})();
