--[[
  live-producers-1.lua: the producers whose last heartbeat is at most a lease old (Redis time),
  forgetting those gone for ten leases (crashed processes never say goodbye).

  KEYS[1]  sorted set of producers, score = last heartbeat (ms, Redis time)

  ARGV[1]  lease in ms

  Returns the live producer ids
]]
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs - 10 * leaseMs)
return redis.call('ZRANGEBYSCORE', KEYS[1], nowMs - leaseMs, '+inf')
