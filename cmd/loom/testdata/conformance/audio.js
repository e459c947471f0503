// A silent WAV with no samples, as an audio part.
[{type: 'audio', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=', mimeType: 'audio/wav'}]
