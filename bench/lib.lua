-- Shared by every bench/*.lua script (wrk 4 with LuaJIT).
--
-- wrk runs one Lua state per thread plus one for setup/done. This module:
--   * numbers the threads (setup), so that each builds unique request bodies
--     and walks its own share of an id list;
--   * parses `-- name=value ...` script arguments (init);
--   * counts non-2xx responses per thread (response), read back in done();
--   * with `max_requests=N`, stops each thread after its share of N responses
--     (wrk itself only bounds a run by time; smoke runs bound both);
--   * prints one line `BENCH_RESULT {json}` that bench/run.py parses.
local M = {}

M.args = {}
M.ids = {}
M.tid = 0
M.nthreads = 1
M.n = 0          -- ids taken by this thread
M.seq = 0        -- unique tokens made by this thread
M.answered = 0   -- responses this thread has seen
M.limit = 0      -- stop this thread after this many responses (0: no limit)
non2xx = 0       -- global: read from the main state with thread:get()
statuses = ""    -- global: the distinct non-2xx status codes seen
taken = 0        -- global: ids this thread has taken from the id list

local threads = {}
local counter = 0
local seen = {}

function M.setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function M.init(args)
  for _, a in ipairs(args) do
    local k, v = a:match("^([%w_]+)=(.*)$")
    if k then M.args[k] = v end
  end
  M.tid = tid or 0
  M.nthreads = tonumber(M.args.threads or "1")
  M.key = M.args.key
  local max = tonumber(M.args.max_requests or "0")
  if max > 0 then
    M.limit = math.floor(max / M.nthreads) + ((M.tid < max % M.nthreads) and 1 or 0)
    if M.limit < 1 then M.limit = 1 end
  end
  math.randomseed(os.time() * 1000 + M.tid * 7919)
  if M.args.ids then
    for line in io.lines(M.args.ids) do
      if #line > 0 then table.insert(M.ids, line) end
    end
    assert(#M.ids > 0, "empty id file " .. M.args.ids)
  end
end

-- The id this thread uses for its i-th request: thread t takes t, t+T, t+2T, ...
function M.next_id()
  local i = (M.tid + M.n * M.nthreads) % #M.ids
  M.n = M.n + 1
  taken = M.n
  return M.ids[i + 1]
end

-- A token no other request of this run carries: thread, sequence, random.
function M.unique()
  M.seq = M.seq + 1
  return string.format("t%d-n%d-r%08x-%d", M.tid, M.seq, math.random(0, 0x7fffffff), os.time())
end

function M.headers(json)
  local h = { ["X-API-Key"] = M.key }
  if json then h["Content-Type"] = "application/json" end
  return h
end

function M.response(status, headers, body)
  M.answered = M.answered + 1
  if M.limit > 0 and M.answered >= M.limit then
    wrk.thread:stop()
  end
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    local k = tostring(status)
    if not seen[k] then
      seen[k] = true
      statuses = statuses .. k .. " "
      if body and #body > 0 then
        io.stderr:write(string.format("non-2xx %d: %s\n", status, body:sub(1, 300)))
      end
    end
  end
end

function M.done(summary, latency, requests)
  local bad, kinds, span = 0, "", 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non2xx") or 0)
    kinds = kinds .. (t:get("statuses") or "")
    local n = t:get("taken") or 0
    if n > 0 then
      -- this thread's last id was list entry tid + (n-1)*T (before wrapping)
      span = math.max(span, t:get("tid") + (n - 1) * #threads + 1)
    end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,' ..
    '"timeout":%d,"status_ge_400":%d,"non2xx":%d,"non2xx_kinds":"%s",' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,"ids_span":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    bad, kinds, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean, span))
end

-- Wire the hooks into the calling script's globals.
function M.install(request_fn, init_fn)
  _G.setup = M.setup
  _G.done = M.done
  _G.response = M.response
  _G.init = function(args)
    M.init(args)
    if init_fn then init_fn(M) end
  end
  if request_fn then _G.request = request_fn end
  return M
end

return M
