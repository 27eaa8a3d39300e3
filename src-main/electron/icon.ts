// The tray and window icon (32x32 PNG: a door in a blue disc), inline so the app needs no
// asset path that differs between development and the asar. resources/icon.png is the
// 512x512 one electron-builder turns into each platform's icon.
export const ICON_PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAA4ElEQVR42s2XwQ2FIAyGHYAROkbHYA2OjMAK7MaldyfxRQMJ70Uj9RVbk/9ikP9LobVdMNDCFGAgj4EiBkpVsb4D7n4c092oYKDtRqWuBQkAh4HygOmVct3jEcAe0vUP86a17sUCiALGv4qjADPMLyHOwr5Nlr8CcEJnPnIn3BlAfsG8z44vAHjRvAl6gDT64d3DAEg9QFEAKA2AFX5BgOMY2KknDODZhUcYILIu4ASAZAJA/QjUL6F6GqoXIhOlGBQA4NHvWAggm2xI1FsyE02pibbcxGBiYjQzMZxOH88/kF1bXJsQmJwAAAAASUVORK5CYII=';
