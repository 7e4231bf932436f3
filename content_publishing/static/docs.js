// Start-up of the API docs page (/functions/v1/docs). A file of its own, so
// that the page's Content-Security-Policy allows no inline script.
//
// The key pasted under "Authorize" is kept in sessionStorage only: it is gone
// when the tab closes. (Swagger UI's persistAuthorization would keep it in
// localStorage, on disk, with no end.)
const KEY_ITEM = "cps.apiKey";
const SCHEMES = ["ApiKeyHeader", "BearerAuth"];

const keepKeyForTheSession = () => ({
  statePlugins: {
    auth: {
      wrapActions: {
        authorize: (action) => (payload) => {
          for (const scheme of SCHEMES) {
            const value = payload?.[scheme]?.value;
            if (value) sessionStorage.setItem(KEY_ITEM, value);
          }
          return action(payload);
        },
        logout: (action) => (payload) => {
          sessionStorage.removeItem(KEY_ITEM);
          return action(payload);
        },
      },
    },
  },
});

window.ui = SwaggerUIBundle({
  url: document.body.dataset.spec,
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false,
  plugins: [keepKeyForTheSession],
  onComplete: () => {
    const key = sessionStorage.getItem(KEY_ITEM);
    if (key) window.ui.preauthorizeApiKey("ApiKeyHeader", key);
  },
});
