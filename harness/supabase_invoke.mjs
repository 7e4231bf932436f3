// supabase-js's functions.invoke against this service: node supabase_invoke.mjs URL KEY
// Prints one JSON object: what each call gave back, as a client reads it.
import { createClient } from "@supabase/supabase-js";

const [url, key] = process.argv.slice(2);
const client = createClient(url, key);

async function call(name, options) {
  const { data, error } = await client.functions.invoke(name, options);
  if (!error) return { data };
  // A non-2xx answer is a FunctionsHttpError; the service's envelope is its response's body.
  return { error: error.name, status: error.context.status, envelope: await error.context.json() };
}

const out = {
  object: await call("api-v2-posts", { body: { type: "personal", content: "from supabase-js (an object)" } }),
  string: await call("api-v2-posts", {
    body: JSON.stringify({ type: "personal", content: "from supabase-js (a string)" }),
  }),
  list: await call("api-v2-posts", { method: "GET" }),
  invalid: await call("api-v2-posts", { body: { type: "personal", content: "" } }),
};
const other = createClient(url, "svc_live_" + "x".repeat(40));
const refused = await other.functions.invoke("api-v2-posts", { method: "GET" });
out.unknown_key = { status: refused.error.context.status, envelope: await refused.error.context.json() };
console.log(JSON.stringify(out));
