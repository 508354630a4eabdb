// Placeholder; replaced by HapticManager.
