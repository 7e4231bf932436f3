-- GET the first list page of 20 posts (static request).
-- Args: key=... [path=...]
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
require("lib").install(nil, function(b)
  wrk.method = "GET"
  wrk.path = b.args.path or "/functions/v1/api-v2-posts?limit=20"
  wrk.headers["X-API-Key"] = b.key
end)
