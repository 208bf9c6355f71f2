--[[
  idempotency-release-1.lua: gives up a claim after a failed publish.

  KEYS[1]  lock key

  ARGV[1]  owner token (a lease that ran out may have passed to someone else: only ours goes)

  Returns 1
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
