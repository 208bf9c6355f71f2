--[[
  producer-heartbeat-1.lua: a producing process says it is alive, stamped with Redis's clock so
  that every producer's heartbeat and the scaling procedure's "live since" use one clock.

  KEYS[1]  sorted set of producers, score = last heartbeat (ms, Redis time)

  ARGV[1]  producer id

  Returns the heartbeat's time in ms
]]
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], nowMs, ARGV[1])
return nowMs
