-- The ceiling: a static GET of bench/ceiling_app.py's small JSON object.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
require("lib").install(nil, function(b)
  wrk.method = "GET"
  wrk.path = "/"
end)
