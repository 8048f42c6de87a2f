-- A burst of report POSTs right after a pass: 30 % land in one of 500 slots that already hold a
-- report (bench/status_burst.py stores them first: callsigns Q0AAA..Q9ATF at the instant given
-- as the script's argument), so they replace; the rest are new slots (callsigns Z<thread><4
-- letters>, each once, which the script clears before the run). done() prints how many of each
-- were sent, so the script can check that every acknowledged report was stored.
local letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
local threads = {}
-- globals, so that done() can read them from each thread
counter, hot, new = 0, 0, 0
local thread_number = 0
local hot_instant = ""

local function letters_of(n, width)
  local text = ""
  for _ = 1, width do
    local k = n % 26
    text = letters:sub(k + 1, k + 1) .. text
    n = math.floor(n / 26)
  end
  return text
end

setup = function(thread)
  thread:set("number", #threads)
  table.insert(threads, thread)
end

init = function(args)
  math.randomseed(os.time() + number)
  thread_number = number
  hot_instant = args[1]
end

request = function()
  counter = counter + 1
  local callsign, reported_at
  if math.random() < 0.3 then
    hot = hot + 1
    local slot = math.random(0, 499)
    callsign = "Q" .. (slot % 10) .. letters_of(slot, 3)
    reported_at = hot_instant
  else
    new = new + 1
    callsign = "Z" .. thread_number .. letters_of(counter, 4)
    reported_at = os.date("!%Y-%m-%dT%H:%M:%SZ", os.time() - math.random(60, 7199))
  end
  local body = string.format('{"name":"AO-91","report":"%s","callsign":"%s","grid_square":"EM48","reported_at":"%s"}',
    (counter % 3 == 0) and "Not Heard" or "Heard", callsign, reported_at)
  return wrk.format("POST", "/api/v1/reports.php", {["Content-Type"] = "application/json"}, body)
end

done = function(summary, latency, requests)
  local hot_sent, new_sent = 0, 0
  for _, thread in ipairs(threads) do
    hot_sent = hot_sent + thread:get("hot")
    new_sent = new_sent + thread:get("new")
  end
  io.write(string.format("SENT hot=%d new=%d\n", hot_sent, new_sent))
end
