-- POST /functions/v1/make-post-callback on pre-seeded Scheduled posts.
-- Each line of the id file is "<post id> <n>"; the callback for a post always
-- carries urn:li:share:<n>, so a post met a second time (the list wrapped)
-- gets the service's idempotent 200 with the record unchanged.
-- Args: key=... ids=FILE threads=N
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
local b
b = require("lib").install(function()
  local id, n = b.next_id():match("^(%S+)%s+(%d+)$")
  local body = string.format(
    '{"post_id":"%s","linkedin_post_id":"urn:li:share:%s",' ..
    '"live_url":"https://www.linkedin.com/feed/update/urn:li:share:%s"}', id, n, n)
  return wrk.format("POST", "/functions/v1/make-post-callback", b.headers(true), body)
end)
