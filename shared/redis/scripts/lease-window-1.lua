--[[
  lease-window-1.lua: grants a node a LEASE on part of one fixed window's remaining budget
  (rate-limiter.leased.ts). The node then admits requests from its leased units without asking
  Redis again, and comes back only when they are used up. Units are taken for good: the counter
  is the sum of everything ever leased in the window, so it never exceeds the limit and nodes
  sharing a counter can never admit more than the limit between them.

  KEYS[1]  counter key of ONE window (keys.ts rateLimitKey: the window start is part of the key,
           so a new window is a new key and leases of the old one die with it).

  ARGV[1]  need      integer >= 0. Units the caller must have now (the cost of the request it
                     holds, less the units it still has). When fewer remain, NOTHING is granted.
                     0 together with maxGrant 0 reads the counter without changing it.
  ARGV[2]  maxGrant  integer >= need. Most units granted in one lease.
  ARGV[3]  limit     integer >= 0. Hard limit of the window.
  ARGV[4]  expiryMs  integer >= 1. PEXPIRE given to the key when it has no TTL yet, i.e. on the
                     first grant of the window. Callers pass "time until the window ends" plus a
                     grace for clock skew between nodes.
  ARGV[5]  divisor   integer >= 1. Share of the remaining budget one lease may take: the grant is
                     max(need, min(maxGrant, floor(remaining / divisor))), so leases shrink as the
                     window fills and are single units near the bound.

  Returns {granted, count, ttlMs}
    granted  units added to the counter by this call (0: refused, or a read)
    count    counter value after the call
    ttlMs    remaining lifetime of the key in ms; expiryMs when the key does not exist

  Errors: "ERR lease-window: ..." when an ARGV value is malformed or the key holds a non-integer.
]]

local key = KEYS[1]
local need = tonumber(ARGV[1])
local maxGrant = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local expiryMs = tonumber(ARGV[4])
local divisor = tonumber(ARGV[5])

local function isInt(v, min)
  return v ~= nil and v % 1 == 0 and v >= min
end
if not isInt(need, 0) then
  return redis.error_reply('ERR lease-window: need must be an integer >= 0')
end
if not isInt(maxGrant, 0) or maxGrant < need then
  return redis.error_reply('ERR lease-window: maxGrant must be an integer >= need')
end
if not isInt(limit, 0) then
  return redis.error_reply('ERR lease-window: limit must be an integer >= 0')
end
if not isInt(expiryMs, 1) then
  return redis.error_reply('ERR lease-window: expiryMs must be an integer >= 1')
end
if not isInt(divisor, 1) then
  return redis.error_reply('ERR lease-window: divisor must be an integer >= 1')
end

local current = tonumber(redis.call('GET', key) or '0')
if current == nil then
  return redis.error_reply('ERR lease-window: counter key does not hold an integer')
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

local remaining = limit - current
if remaining < 0 then
  remaining = 0
end
if need > remaining or maxGrant == 0 then
  return {0, current, ttlOf()}
end

local grant = math.floor(remaining / divisor)
if grant > maxGrant then
  grant = maxGrant
end
if grant < need then
  grant = need
end
if grant == 0 then
  return {0, current, ttlOf()}
end

local count = redis.call('INCRBY', key, grant)
return {grant, count, ttlOf()}
