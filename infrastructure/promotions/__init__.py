"""The operator's promotions: free-round campaigns and their expiry."""
