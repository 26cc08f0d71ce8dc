// Card and turn sounds, synthesized with WebAudio (no sound files, nothing fetched). Settings has
// a mute ("sounds", remembered in gamester.settings). Where audio is unavailable (a headless browser,
// a page not yet clicked) a sound is simply not heard: playSound never throws.
//
// Each sound asked for while unmuted is counted on <html data-sounds="N"> (and its name in
// data-last-sound), so a test can see the sound path ran even with no speaker.

import { settings } from "./ui.js";

// name -> a short list of [frequency Hz, start s, length s, wave] tones.
const TONES = {
  card: [[180, 0, 0.05, "triangle"], [90, 0.01, 0.06, "sine"]], // a soft snap
  turn: [[660, 0, 0.12, "sine"], [880, 0.1, 0.16, "sine"]], // two rising notes
};

let context = null;

function audio() {
  if (context) return context;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  context = new Ctor();
  return context;
}

export function soundsOn() {
  return settings().sounds !== false;
}

/** Play the sound ``name`` ("card" or "turn") unless muted. */
export function playSound(name) {
  if (!soundsOn() || !TONES[name]) return;
  const root = document.documentElement;
  root.dataset.sounds = String(Number(root.dataset.sounds || 0) + 1);
  root.dataset.lastSound = name;
  try {
    const ac = audio();
    if (!ac) return;
    if (ac.state === "suspended") ac.resume().catch(() => {});
    const t0 = ac.currentTime;
    for (const [freq, start, length, wave] of TONES[name]) {
      const osc = ac.createOscillator();
      const gain = ac.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + start);
      gain.gain.exponentialRampToValueAtTime(0.18, t0 + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + start + length);
      osc.connect(gain).connect(ac.destination);
      osc.start(t0 + start);
      osc.stop(t0 + start + length + 0.02);
    }
  } catch {
    // no audio here (or the browser refused it): the sound is just not heard
  }
}
