-- 80 % reads, 20 % writes, drawn at random per request:
--   50 % GET one post, 30 % GET the first list page of 20,
--   10 % POST create, 10 % PATCH content (no If-Match) of one of many posts.
-- Args: key=... ids=FILE threads=N
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
local b
b = require("lib").install(function()
  local r = math.random(100)
  if r <= 50 then
    return wrk.format("GET", "/functions/v1/api-v2-posts-item/" .. b.next_id(), b.headers(false))
  elseif r <= 80 then
    return wrk.format("GET", "/functions/v1/api-v2-posts?limit=20", b.headers(false))
  elseif r <= 90 then
    local body = '{"type":"personal","content":"bench mixed create ' .. b.unique() .. '"}'
    return wrk.format("POST", "/functions/v1/api-v2-posts", b.headers(true), body)
  else
    local body = '{"content":"bench mixed patch ' .. b.unique() .. '"}'
    return wrk.format("PATCH", "/functions/v1/api-v2-posts-item/" .. b.next_id(), b.headers(true), body)
  end
end)
