// Text, an image and an embedded JSON resource, in this order.
[
  {type: 'text', text: 'Multiple content types test:'},
  {type: 'image', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', mimeType: 'image/png'},
  {type: 'resource', resource: {uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({test: 'data', value: 123})}},
]
