// gpu-breakeven /docs: Swagger UI (vendored) over this origin's /openapi.json.
// A file, not an inline script, so the page runs under the same strict CSP as the dashboard.
"use strict";

window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.spec,
    domNode: root,
    deepLinking: true,
    layout: "BaseLayout",
    presets: [window.SwaggerUIBundle.presets.apis],
    validatorUrl: null, // no badge fetched from validator.swagger.io
  });
});
