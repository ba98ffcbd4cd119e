// A reload asked for while the gateway starts. From the moment bin/gateway knows it will serve until
// the server is up, nothing could reload the configuration, and node's default for SIGHUP ends the
// process: a supervisor's reload in that half second (systemd counts a Type=simple unit as started at
// exec, so `systemctl restart` then `systemctl reload` lands there) would stop the gateway for good,
// since systemd does not restart a service that SIGHUP ended. So bin/gateway holds SIGHUP first thing;
// a reload asked for meanwhile runs once, when the gateway serves (the file may have changed after the
// start read it). SIGTERM and SIGINT keep their default until then: stopping a gateway that serves
// nothing yet is what they ask for.

export interface HeldReloads {
  /** `reload` answers SIGHUP from now on; it runs at once if SIGHUP came while held */
  release(reload: () => void): void;
}

/** Holds SIGHUP until `release`. */
export function holdReloads(): HeldReloads {
  let asked = false;
  const held = (): void => {
    asked = true;
  };
  process.on('SIGHUP', held);
  return {
    release(reload) {
      // the new listener first, so that SIGHUP is never without one
      process.on('SIGHUP', reload);
      process.off('SIGHUP', held);
      if (asked) {
        asked = false;
        reload();
      }
    },
  };
}
