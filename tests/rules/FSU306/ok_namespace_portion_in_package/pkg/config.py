retries = 3
