// Starts Swagger UI on #swagger-ui with the document named by its data-spec-url attribute.
// A file rather than an inline script, so the page works under a CSP without 'unsafe-inline'.
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.specUrl,
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // No third-party request: the default would send our document to validator.swagger.io.
    validatorUrl: null,
    supportedSubmitMethods: ["get", "post"]
  });
});
