-- GET one post: /functions/v1/api-v2-posts-item/{id}, cycling through many ids.
-- Args: key=... ids=FILE threads=N
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
local b
b = require("lib").install(function()
  return wrk.format("GET", "/functions/v1/api-v2-posts-item/" .. b.next_id(), b.headers(false))
end)
