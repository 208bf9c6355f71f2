--[[
  idempotency-complete-3.lua: records that the owner's publish was acknowledged.

  KEYS[1]  record key
  KEYS[2]  lock key
  KEYS[3]  done key

  ARGV[1]  message id that was published
  ARGV[2]  ttlMs to use when the record has no lifetime left
  ARGV[3]  owner token (only the owner's own lock is removed)

  Returns 1
]]
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then ttl = tonumber(ARGV[2]) end
redis.call('SET', KEYS[3], ARGV[1], 'PX', ttl)
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1
