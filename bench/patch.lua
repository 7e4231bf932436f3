-- PATCH /functions/v1/api-v2-posts-item/{id} with new unique content, no If-Match,
-- walking many distinct posts. Args: key=... ids=FILE threads=N
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
local b
b = require("lib").install(function()
  local id = b.next_id()
  local body = '{"content":"bench patch ' .. b.unique() .. '"}'
  return wrk.format("PATCH", "/functions/v1/api-v2-posts-item/" .. id, b.headers(true), body)
end)
