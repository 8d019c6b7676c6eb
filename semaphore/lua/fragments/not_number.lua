-- not_number is the error reply of a script that found a value that is not
-- a whole number under the semaphore's key; the Go side says what it holds.
return redis.error_reply('ERR semaphore value is not an integer')