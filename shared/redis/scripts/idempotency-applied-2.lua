--[[
  idempotency-applied-2.lua: records where the channel actor put the first publish of a key, once
  that publish was answered with its offset and epoch, so that repeats answer the same.

  KEYS[1]  record key: JSON {id, channel}
  KEYS[2]  applied key

  ARGV[1]  message id that was published
  ARGV[2]  applied JSON {id, offset, epoch}

  Returns 1 when recorded, 0 when the record is gone or belongs to another message id.
]]
local rec = redis.call('GET', KEYS[1])
if not rec or cjson.decode(rec).id ~= ARGV[1] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ttl)
return 1
