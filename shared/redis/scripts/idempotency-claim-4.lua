--[[
  idempotency-claim-4.lua: claims a publish's Idempotency-Key atomically.

  KEYS[1]  record key: JSON {id, channel} of the first publish with this key (lives ttlMs)
  KEYS[2]  lock key: the owner currently publishing under the key (lives leaseMs)
  KEYS[3]  done key: the message id once its publish was acknowledged by Kafka
  KEYS[4]  applied key: JSON {id, offset, epoch} once the first publish was answered with them

  ARGV[1]  fresh record JSON, stored when the key is new
  ARGV[2]  ttlMs of a new record (the 5 minute idempotency window)
  ARGV[3]  owner token of this caller
  ARGV[4]  leaseMs of the lock
  ARGV[5]  channel of this publish

  Returns {status, record JSON, applied JSON or ''} with status
    'mismatch'  the key was first used for another channel
    'replay'    the first publish completed: answer it again (with its offset and epoch when the
                applied JSON is there and names the record's id)
    'owner'     this caller publishes (under the record's id)
    'busy'      another caller holds the lock; poll again
]]
local rec = redis.call('GET', KEYS[1])
if not rec then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  rec = ARGV[1]
end
local r = cjson.decode(rec)
if r.channel ~= ARGV[5] then return {'mismatch', rec, ''} end
if redis.call('GET', KEYS[3]) == r.id then return {'replay', rec, redis.call('GET', KEYS[4]) or ''} end
if redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4], 'NX') then return {'owner', rec, ''} end
return {'busy', rec, ''}
