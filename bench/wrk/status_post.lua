-- POST /api/v1/reports.php with JSON reports that vary satellite, callsign, value and time.
-- 400 callsigns x the last 2 hours (8 quarter-hour periods) x a Zipf-ish pick of 6 satellites:
-- a few thousand slots, so a 5-10 s run at a few hundred req/s does both inserts (new slots)
-- and replacements (a slot already taken), like real traffic around a pass.
local sats = {"AO-91", "AO-91", "AO-91", "ISS-FM", "ISS-FM", "SO-50", "RS-44", "FO-29", "AO-7_[U/v]"}
local values = {"Heard", "Heard", "Heard", "Heard", "Not Heard", "Telemetry Only"}
local prefixes = {"K", "W", "N", "KB", "VE", "G", "DL", "F", "EA", "JA", "VK", "PY"}
local grids = {"EM48", "FN31", "DM79", "JO62", "IO91", "JN18", "PM95", "QF56", "GG87", "EM48ab"}
local letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
local calls = {}

init = function(args)
  math.randomseed(os.time())
  for i = 1, 400 do
    local suffix = ""
    for _ = 1, 3 do
      local k = math.random(1, 26)
      suffix = suffix .. letters:sub(k, k)
    end
    calls[i] = prefixes[math.random(#prefixes)] .. math.random(0, 9) .. suffix
  end
end

request = function()
  local instant = os.time() - math.random(0, 7199)
  local body = string.format(
    '{"name":"%s","report":"%s","callsign":"%s","grid_square":"%s","reported_at":"%s"}',
    sats[math.random(#sats)], values[math.random(#values)], calls[math.random(#calls)],
    grids[math.random(#grids)], os.date("!%Y-%m-%dT%H:%M:%SZ", instant))
  return wrk.format("POST", "/api/v1/reports.php", {["Content-Type"] = "application/json"}, body)
end
