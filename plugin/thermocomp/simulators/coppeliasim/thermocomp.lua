-- Thermal compensation (thermocomp) add-on for CoppeliaSim 4.6 and later.
--
-- Appears as [Modules > Thermal compensation]. Opens a panel with the entries:
-- pick robot, pick tip, load deformation, load targets, minute, magnification, show
-- deformed, run compensation, play, write CSV, restore nominal robot.
--
-- Design (docs/coppeliasim.md): the add-on holds the user's choices and calls
-- the Python plugin by launching `thermocomp coppeliasim addon-run REQUEST`
-- with simSubprocess.execAsync, where REQUEST (a fixed file in CoppeliaSim's
-- user settings folder) holds the action and its options, one argument a line.
-- CoppeliaSim asks the user before a script launches a program and remembers
-- the answer per exact command line (coppeliaSimLib
-- simCheckExecAuthorization_internal hashes the program, its arguments and the
-- script; simSubprocess's checkAuth throws "Permission denied (by user)" on a
-- refusal): with one fixed command line it asks once, not at every click.
-- Each process connects back to this
-- CoppeliaSim through the ZMQ remote API (the 'ZMQ remote API server' add-on,
-- port zmqRemoteApi.rpcPort, 23000 by default), does its work with
-- thermocomp's own solver (never simIK) and restores the robot to its nominal
-- state before it ends. A blocking call (simSubprocess.exec) would freeze
-- CoppeliaSim's main loop and with it the remote API server the process talks
-- to, so every call is asynchronous, and its end is noticed in sysCall_nonSimulation,
-- sysCall_actuation (a simulation running) and sysCall_suspended (paused) alike.
--
-- `require 'sim'` is sim-1 in every CoppeliaSim from 4.6 to the 4.10 development head
-- (lua/sim.lua: return require('sim-1')), which keeps getStringParam and
-- getNamedStringParam even where sim-2 has dropped them.
--
-- The executable is `thermocomp` on the PATH, or the value of the named
-- string parameter `thermocomp.executable` (e.g. a virtual environment's
-- bin/thermocomp), set with `sim.setNamedStringParam` or on the command line
-- with `-Gthermocomp.executable=...`.

sim = require 'sim'

function sysCall_info()
    return {autoStart = false, menu = 'Thermal compensation'}
end

-- --- state --------------------------------------------------------------------------

local state = {
    robotPath = '/IRB140',
    tipPath = nil,
    deformation = nil,
    targets = nil,
    minute = 200,
    stabilisation = 200,
    magnification = 1,
    results = nil,
}
local running = nil       -- {handle = ..., what = ..., report = ..., done = function}
local REQUEST_FORMAT = 'thermocomp-addon-request/1'
local REQUEST_FILE = 'thermocomp-addon-request.txt' -- in the user settings folder: the same path in every session
local showing = nil       -- stop file of a running `show`
local ui = nil
local tempDir = nil

local function executable()
    local exe = sim.getNamedStringParam('thermocomp.executable')
    if exe == nil or exe == '' then
        exe = 'thermocomp'
    end
    return exe
end

local function port()
    return sim.getNamedInt32Param('zmqRemoteApi.rpcPort') or 23000
end

local function log(text)
    sim.addLog(sim.verbosity_scriptinfos, 'thermocomp: ' .. text)
    if ui then
        simUI.setLabelText(ui, 20, text)
    end
end

local function readFile(path)
    local f = io.open(path, 'r')
    if not f then
        return nil
    end
    local text = f:read('a')
    f:close()
    return text
end

local function touch(path)
    local f = io.open(path, 'w')
    if f then
        f:write('stop\n')
        f:close()
    end
end

-- The options every scene action takes: where CoppeliaSim is and which robot
-- (and its tip, unless withoutTip: `restore` works on the base's saved poses).
local function sceneOptions(args, report, withoutTip)
    local extra = {'--host', '127.0.0.1', '--port', tostring(port()), '--robot-path', state.robotPath,
                   '--report', report}
    for _, v in ipairs(extra) do
        table.insert(args, v)
    end
    if state.tipPath and not withoutTip then
        table.insert(args, '--tip')
        table.insert(args, state.tipPath)
    end
    return args
end

local function lawOptions(args)
    local extra = {'--stabilisation-min', tostring(state.stabilisation), '--minute', tostring(state.minute)}
    for _, v in ipairs(extra) do
        table.insert(args, v)
    end
    return args
end

-- Write the request file: the format line, then one argument a line.
local function writeRequest(path, args)
    for _, a in ipairs(args) do
        if string.find(a, '[\r\n]') then
            return false, 'an argument holds a line break: ' .. a
        end
    end
    local f, err = io.open(path, 'w')
    if not f then
        return false, err
    end
    f:write(REQUEST_FORMAT .. '\n')
    for _, a in ipairs(args) do
        f:write(a .. '\n')
    end
    f:close()
    return true
end

-- Launch `thermocomp coppeliasim addon-run REQUEST` without blocking, REQUEST holding
-- `args`; done(exitCode, reportText) when it ends. The process appends what it
-- prints, and its error if it fails, to the report file.
local function launch(what, args, done, withoutTip)
    if running then
        log('busy: ' .. running.what .. ' is still running')
        return false
    end
    local report = tempDir .. '/thermocomp-report-' .. tostring(sim.getSystemTime()) .. '.txt'
    sceneOptions(args, report, withoutTip)
    local request = sim.getStringParam(sim.stringparam_usersettingsdir) .. '/' .. REQUEST_FILE
    local written, err = writeRequest(request, args)
    if not written then
        log(what .. ': could not write the request file ' .. request .. ': ' .. tostring(err))
        return false
    end
    local exe = executable()
    -- The same command line every time: CoppeliaSim asks its permission once.
    local ok, handle = pcall(simSubprocess.execAsync, exe, {'coppeliasim', 'addon-run', request},
                             {useSearchPath = true})
    if not ok then
        if string.find(tostring(handle), 'Permission denied', 1, true) then
            log(what .. ' was not started: CoppeliaSim\'s permission to run "' .. exe .. ' coppeliasim addon-run '
                .. request .. '" was refused. Run the action again and allow it (CoppeliaSim asks once for this '
                .. 'command line), or allow every program with execUnsafe=true in usrset.txt')
        else
            log(what .. ' could not start "' .. exe .. '": ' .. tostring(handle) .. '. Install thermocomp so that '
                .. 'it is on the PATH, or set the named string parameter thermocomp.executable to the full path of '
                .. 'the thermocomp executable (e.g. start CoppeliaSim with '
                .. '-Gthermocomp.executable=/path/to/.venv/bin/thermocomp)')
        end
        return false
    end
    running = {handle = handle, what = what, report = report, done = done}
    log(what .. '...')
    return true
end

local function need(value, what)
    if value == nil then
        log('first ' .. what)
        return false
    end
    return true
end

-- --- the entries ------------------------------------------------------------------------

-- The full path of the one selected object, shown in label `label`; nil (and
-- `hint` logged) unless exactly one object is selected.
local function pickSelected(what, label, hint)
    local sel = sim.getObjectSel()
    if #sel ~= 1 then
        log(hint)
        return nil
    end
    local path = sim.getObjectAlias(sel[1], 2)
    simUI.setLabelText(ui, label, path)
    log(what .. ': ' .. path)
    return path
end

function onPickRobot()
    state.robotPath = pickSelected('robot', 11, 'select the robot base (one object) in the scene hierarchy, '
        .. 'then pick again') or state.robotPath
end

-- The TCP: a dummy (or any object) hanging under the arm's last joint. Picking
-- with nothing selected goes back to the last joint's own frame.
function onPickTip()
    if #sim.getObjectSel() == 0 then
        state.tipPath = nil
        simUI.setLabelText(ui, 18, '(last joint)')
        log('tip: the last joint\'s frame')
        return
    end
    state.tipPath = pickSelected('tip', 18, 'select the tip (one object under the last joint), or nothing for '
        .. 'the last joint, then pick again') or state.tipPath
end

local function pickFile(title, label)
    local files = simUI.fileDialog(simUI.filedialog_type.load, title, '', '', 'CSV files', 'csv')
    if files and #files > 0 then
        simUI.setLabelText(ui, label, files[1])
        return files[1]
    end
    return nil
end

function onLoadDeformation()
    state.deformation = pickFile('Deformation table (Dx,Dy,Dz [mm], Dox,Doy,Doz [deg])', 12) or state.deformation
end

function onLoadTargets()
    state.targets = pickFile('Targets (x_mm, y_mm, z_mm and orientation columns)', 13) or state.targets
end

function onMinute(ui_, id, value)
    state.minute = tonumber(value) or state.minute
end

function onMagnification(ui_, id, value)
    state.magnification = tonumber(value) or state.magnification
end

function onShowDeformed(ui_, id, value)
    if value ~= 0 then
        if not need(state.deformation, 'load a deformation table') then
            return
        end
        showing = tempDir .. '/thermocomp-stop-show-' .. tostring(sim.getSystemTime())
        local started = launch('show deformed', lawOptions({'coppeliasim', 'show', '--deformation', state.deformation,
                                                            '--magnification', tostring(state.magnification),
                                                            '--hold-s', '86400', '--until-file', showing}),
                               function(code, text) showing = nil end)
        if not started then
            showing = nil
        end
    elseif showing then
        touch(showing)
    end
end

function onRunCompensation()
    if not (need(state.deformation, 'load a deformation table') and need(state.targets, 'load targets')) then
        return
    end
    local out = tempDir .. '/thermocomp-results.csv'
    launch('compensation', {'coppeliasim', 'compensate', '--deformation', state.deformation,
                            '--targets', state.targets, '--out', out,
                            '--stabilisation-min', tostring(state.stabilisation),
                            '--minutes', tostring(state.minute), '--check-minutes', tostring(state.minute)},
           function(code, text)
               if code == 0 then
                   state.results = out
               end
           end)
end

function onPlay()
    if not need(state.results, 'run the compensation') then
        return
    end
    local args = {'coppeliasim', 'play', '--results', state.results, '--dwell-s', '0.5',
                  '--magnification', tostring(state.magnification)}
    if state.deformation then
        table.insert(args, '--deformation')
        table.insert(args, state.deformation)
    end
    launch('play', lawOptions(args), function(code, text) end)
end

function onWriteCsv()
    if not need(state.results, 'run the compensation') then
        return
    end
    local files = simUI.fileDialog(simUI.filedialog_type.save, 'Write the compensated program', '',
                                   'compensated.csv', 'CSV files', 'csv')
    if not files or #files == 0 then
        return
    end
    local text = readFile(state.results)
    local f = text and io.open(files[1], 'w')
    if not f then
        log('could not write ' .. files[1])
        return
    end
    f:write(text)
    f:close()
    log('wrote ' .. files[1])
end

-- Put back a robot that an earlier run left deformed (it was killed before
-- restoring): `restore` reads the nominal poses that run saved in the scene.
function onRestore()
    if showing then
        log('untick "Show deformed" first: it restores the robot itself')
        return
    end
    launch('restore', {'coppeliasim', 'restore'}, function(code, text) end, true)
end

function onClose()
    leaveNow = true
end

-- --- the panel ------------------------------------------------------------------------------

local xml = [[
<ui title="Thermal compensation" closeable="true" on-close="onClose" resizable="true">
    <group layout="form" flat="true">
        <button text="Pick robot (selected base)" on-click="onPickRobot" />
        <label id="11" text="/IRB140" />
        <button text="Pick tip (selected object)" on-click="onPickTip" />
        <label id="18" text="(last joint)" />
        <button text="Load deformation..." on-click="onLoadDeformation" />
        <label id="12" text="(none)" />
        <button text="Load targets..." on-click="onLoadTargets" />
        <label id="13" text="(none)" />
        <label text="Minute" />
        <spinbox id="14" minimum="0" maximum="100000" value="200" on-change="onMinute" />
        <label text="Magnification" />
        <spinbox id="15" minimum="1" maximum="1000" value="1" on-change="onMagnification" />
    </group>
    <checkbox id="16" text="Show deformed" on-change="onShowDeformed" />
    <button text="Run compensation" on-click="onRunCompensation" />
    <button text="Play" on-click="onPlay" />
    <button text="Write CSV..." on-click="onWriteCsv" />
    <button text="Restore nominal robot" on-click="onRestore" />
    <label id="20" text="" wordwrap="true" />
</ui>
]]

function sysCall_init()
    simUI = require 'simUI'
    simSubprocess = require 'simSubprocess'
    tempDir = sim.getStringParam(sim.stringparam_tempdir)
    ui = simUI.create(xml)
end

-- Notice a finished process: its exit code and report. Called in every state of
-- the simulation (stopped, running, paused).
local function checkFinished()
    if running and not simSubprocess.isRunning(running.handle) then
        local finished = running
        running = nil
        local code = simSubprocess.wait(finished.handle, 0)
        local text = readFile(finished.report) or ''
        if code == 0 then
            log(finished.what .. ' done. ' .. text)
        else
            log(finished.what .. ' failed (exit ' .. tostring(code) .. '). ' .. text)
        end
        finished.done(code, text)
    end
end

function sysCall_nonSimulation()
    if leaveNow then
        return {cmd = 'cleanup'}
    end
    checkFinished()
end

function sysCall_actuation()
    checkFinished()
end

function sysCall_suspended()
    checkFinished()
end

function sysCall_addOnScriptSuspend()
    return {cmd = 'cleanup'}
end

function sysCall_cleanup()
    -- A running `show` restores the nominal robot when its stop file appears.
    if showing then
        touch(showing)
    end
    if ui then
        simUI.destroy(ui)
        ui = nil
    end
end
