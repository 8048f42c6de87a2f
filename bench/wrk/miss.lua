-- Every request a request of its own: wrk's path with `miss=<thread>-<n>` appended, a parameter the
-- endpoints ignore, so that no two requests are identical and the replay of whole answers (the same
-- path and query, in one second, at one revision) never answers one (bench/status_miss_app.py).
local threads = {}
local counter = 0
local prefix = ""

setup = function(thread)
  thread:set("number", #threads)
  table.insert(threads, thread)
end

init = function(args)
  prefix = (wrk.path:find("?", 1, true) and "&" or "?") .. "miss=" .. number .. "-"
end

request = function()
  counter = counter + 1
  return wrk.format(nil, wrk.path .. prefix .. counter)
end
