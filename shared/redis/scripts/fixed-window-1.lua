--[[
  fixed-window-1.lua: atomic fixed-window counter with an optional hard limit.

  KEYS[1]  counter key of ONE window (keys.ts rateLimitKey: the window start is part of the key,
           so a new window is a new key and the old one just expires).

  ARGV[1]  cost       integer >= 0. Amount added to the counter. 0 reads the counter without
                      changing it and never creates the key.
  ARGV[2]  expiryMs   integer >= 1. PEXPIRE given to the key when it has no TTL yet, i.e. on the
                      first counted hit of the window. Callers pass "time until the window ends"
                      plus a grace for clock skew between nodes.
  ARGV[3]  hardLimit  optional integer. When present and >= 0, a call whose cost would take the
                      counter above hardLimit is refused and NOTHING is counted, so rejected
                      requests do not eat the quota. Omitted, empty or negative: always count.

  Returns {count, ttlMs, applied}
    count    counter value after the call (unchanged when refused or cost is 0)
    ttlMs    remaining lifetime of the key in ms; expiryMs when the key does not exist
    applied  1 when the cost was added (or cost was 0 and the counter is within hardLimit),
             0 when refused by hardLimit

  Errors: "ERR fixed-window: ..." when an ARGV value is malformed or the key holds a non-integer.
]]

local key = KEYS[1]
local cost = tonumber(ARGV[1])
local expiryMs = tonumber(ARGV[2])
-- Absent or empty means "no hard limit"; anything else must parse, or a typo would silently
-- turn the limit off.
local hardLimit = nil
if ARGV[3] ~= nil and ARGV[3] ~= '' then
  hardLimit = tonumber(ARGV[3])
  if hardLimit == nil or hardLimit % 1 ~= 0 then
    return redis.error_reply('ERR fixed-window: hardLimit must be an integer')
  end
end

if cost == nil or cost < 0 or cost % 1 ~= 0 then
  return redis.error_reply('ERR fixed-window: cost must be an integer >= 0')
end
if expiryMs == nil or expiryMs < 1 or expiryMs % 1 ~= 0 then
  return redis.error_reply('ERR fixed-window: expiryMs must be an integer >= 1')
end

local current = tonumber(redis.call('GET', key) or '0')
if current == nil then
  return redis.error_reply('ERR fixed-window: counter key does not hold an integer')
end

-- A key without TTL would never reset its window; repair it whenever we see one (-1). A missing
-- key (-2) is reported with the lifetime it would get.
local function ttlOf()
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    redis.call('PEXPIRE', key, expiryMs)
    return expiryMs
  end
  if ttl == -2 then
    return expiryMs
  end
  return ttl
end

if hardLimit ~= nil and hardLimit >= 0 and current + cost > hardLimit then
  return {current, ttlOf(), 0}
end
if cost == 0 then
  return {current, ttlOf(), 1}
end

local count = redis.call('INCRBY', key, cost)
return {count, ttlOf(), 1}
