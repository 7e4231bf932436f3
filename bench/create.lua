-- POST /functions/v1/api-v2-posts with a unique personal post each time.
-- Args: key=... threads=N
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
local b
b = require("lib").install(function()
  local body = '{"type":"personal","content":"bench create ' .. b.unique() .. '"}'
  return wrk.format("POST", "/functions/v1/api-v2-posts", b.headers(true), body)
end)
